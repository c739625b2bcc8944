#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include "CSystem.h"

int photos_syncfs(int fd) { return syncfs(fd); }

long photos_getrandom(void *buffer, size_t length) { return (long)getrandom(buffer, length, 0); }

int photos_start_writeback(int fd) { return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE); }

long photos_copy_file_range(int fd_in, int64_t *off_in, int fd_out, size_t len) {
    loff_t offset = (loff_t)*off_in;
    ssize_t n = copy_file_range(fd_in, &offset, fd_out, NULL, len, 0);
    *off_in = (int64_t)offset;
    return (long)n;
}

int photos_clone_file(int fd_out, int fd_in) { return ioctl(fd_out, FICLONE, fd_in); }

static volatile sig_atomic_t stop_signal = 0;
static int stop_handlers_installed = 0;

static void stop_handler(int sig) {
    if (stop_signal != 0) {
        /* A second signal: the default action (the process ends at once). */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    stop_signal = sig;
}

int photos_install_stop_handlers(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = stop_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
    }
    stop_handlers_installed = 1;
    return 0;
}

int photos_suspend_stop_handlers(void) {
    if (!stop_handlers_installed) return 0;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    return 1;
}

int photos_stop_signal(void) { return (int)stop_signal; }

void photos_request_stop(int sig) { stop_signal = sig; }

int photos_open_pty(char *name, unsigned long capacity) {
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, name, capacity) != 0) {
        close(master);
        return -1;
    }
    return master;
}
