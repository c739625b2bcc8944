#ifndef PHOTOS_CSYSTEM_H
#define PHOTOS_CSYSTEM_H

/*
 * Linux system calls that glibc declares only under _GNU_SOURCE, which Swift's Glibc module
 * does not define: a plain C wrapper with the C calling convention.
 */

/* syncfs(2): flushes the file system holding fd (data, inodes, folder entries). Returns 0, or
 * -1 with errno set (write-back errors are reported since Linux 5.8). */
int photos_syncfs(int fd);

#endif
