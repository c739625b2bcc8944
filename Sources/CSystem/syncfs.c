#define _GNU_SOURCE
#include <unistd.h>

#include "CSystem.h"

int photos_syncfs(int fd) { return syncfs(fd); }
