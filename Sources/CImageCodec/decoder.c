/* Starting the decoder process, photos-decoder: see decoder.h. */
#define _GNU_SOURCE /* memfd_create, pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "decoder.h"
#include "messages.h"

extern char **environ;

/* The helper's path into out: $PHOTOS_DECODER, else photos-decoder in /proc/self/exe's folder. */
static int pc_decoder_path(char *out, size_t capacity, pc_messages *messages) {
    const char *named = getenv("PHOTOS_DECODER");
    if (named != NULL && named[0] != '\0') {
        snprintf(out, capacity, "%s", named);
    } else {
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) {
            pc_set_error(messages, "the decoder process " PC_DECODER_NAME " cannot be found: /proc/self/exe cannot be read (PHOTOS_DECODER names it)");
            return 0;
        }
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash != NULL) *slash = '\0';
        snprintf(out, capacity, "%s/%s", slash != NULL ? self : ".", PC_DECODER_NAME);
    }
    if (access(out, X_OK) != 0) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "the decoder process %.300s is missing or not executable (%s); install " PC_DECODER_NAME
                 " next to photos, or name it in PHOTOS_DECODER", out, strerror(errno));
        pc_set_error(messages, text);
        return 0;
    }
    return 1;
}

/* A sealed memfd holding the request header and the file's bytes; -1 on failure. */
static int pc_decoder_request_fd(uint32_t kind, const uint8_t *data, size_t size, const pc_decode_options *options) {
    int fd = memfd_create("photos-decoder-request", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    pc_decoder_request request;
    memset(&request, 0, sizeof request);
    request.magic = PC_DECODER_MAGIC;
    request.kind = kind;
    request.options = *options;
    request.size = size;
    size_t total = sizeof request + size;
    if (ftruncate(fd, (off_t)total) != 0) { close(fd); return -1; }
    uint8_t *map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) { close(fd); return -1; }
    memcpy(map, &request, sizeof request);
    memcpy(map + sizeof request, data, size);
    munmap(map, total);
    (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    return fd;
}

/* A close-on-exec copy of fd numbered above PC_DECODER_LOCK_FD, or -1. */
static int pc_decoder_high(int fd) { return fcntl(fd, F_DUPFD_CLOEXEC, PC_DECODER_LOCK_FD + 1); }

int pc_decoder_start(uint32_t kind, const uint8_t *data, size_t size, const pc_decode_options *options, int lock_fd,
                     pid_t *pid, int *reply_fd, pc_messages *messages) {
    char path[PATH_MAX + 32];
    if (!pc_decoder_path(path, sizeof path, messages)) return 0;
    int request = pc_decoder_request_fd(kind, data, size, options);
    if (request < 0) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "no memory for the decoder process's copy of the file (%s)", strerror(errno));
        pc_set_error(messages, text);
        return 0;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        close(request);
        pc_set_error(messages, "no pipe for the decoder process");
        return 0;
    }
    /* Each descriptor the helper gets is first moved above PC_DECODER_LOCK_FD: a source numbered 3, 4 or
     * 5 (the importing process's other threads open and close files meanwhile) would otherwise be
     * overwritten by an earlier dup2 of the file actions before it is copied itself. */
    int request_high = pc_decoder_high(request), reply_high = pc_decoder_high(fds[1]);
    int lock_high = lock_fd >= 0 ? pc_decoder_high(lock_fd) : -1;
    close(request);
    close(fds[1]);
    if (request_high < 0 || reply_high < 0 || (lock_fd >= 0 && lock_high < 0)) {
        if (request_high >= 0) close(request_high);
        if (reply_high >= 0) close(reply_high);
        if (lock_high >= 0) close(lock_high);
        close(fds[0]);
        pc_set_error(messages, "no file descriptors for the decoder process");
        return 0;
    }
    request = request_high;
    fds[1] = reply_high;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    /* dup2 clears close-on-exec on the copy: these are the only descriptors the helper gets. */
    posix_spawn_file_actions_adddup2(&actions, request, PC_DECODER_REQUEST_FD);
    posix_spawn_file_actions_adddup2(&actions, fds[1], PC_DECODER_REPLY_FD);
    if (lock_high >= 0) posix_spawn_file_actions_adddup2(&actions, lock_high, PC_DECODER_LOCK_FD);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    /* Default dispositions and an empty mask: a crash ends the helper at once, and the importing
     * thread's blocked signals (Dispatch blocks some) are not the helper's. */
    sigset_t defaults, none;
    sigemptyset(&defaults);
    static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGPIPE, SIGTERM, SIGINT };
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) sigaddset(&defaults, fatal[i]);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setsigmask(&attributes, &none);
    /* A process group of its own: the terminal's Ctrl-C (SIGINT to the foreground group) reaches the
     * importing process, which stops after its batch, and not the helper, whose file would then fail
     * as "crashed (signal 2)". A helper left by an importing process killed with -9 ends at its next
     * write to the pipe nobody reads (SIGPIPE), or at its own time limit. */
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
    char *argv[] = { (char *)PC_DECODER_NAME, NULL };
    int error = posix_spawn(pid, path, &actions, &attributes, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(request);
    close(fds[1]);
    if (lock_high >= 0) close(lock_high);
    if (error != 0) {
        close(fds[0]);
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "the decoder process %.300s cannot be started (%s)", path, strerror(error));
        pc_set_error(messages, text);
        return 0;
    }
    *reply_fd = fds[0];
    return 1;
}
