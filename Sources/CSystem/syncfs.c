#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "CSystem.h"

int photos_syncfs(int fd) { return syncfs(fd); }

int photos_open_pty(char *name, unsigned long capacity) {
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, name, capacity) != 0) {
        close(master);
        return -1;
    }
    return master;
}
