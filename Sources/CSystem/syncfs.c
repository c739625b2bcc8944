#define _GNU_SOURCE
#include <fcntl.h>
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

int photos_open_pty(char *name, unsigned long capacity) {
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, name, capacity) != 0) {
        close(master);
        return -1;
    }
    return master;
}
