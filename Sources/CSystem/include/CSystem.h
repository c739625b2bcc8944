#ifndef PHOTOS_CSYSTEM_H
#define PHOTOS_CSYSTEM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Linux system calls that glibc declares only under _GNU_SOURCE, which Swift's Glibc module
 * does not define: a plain C wrapper with the C calling convention.
 */

/* syncfs(2): flushes the file system holding fd (data, inodes, folder entries). Returns 0, or
 * -1 with errno set (write-back errors are reported since Linux 5.8). */
int photos_syncfs(int fd);

/* getrandom(2) with no flags (Linux 3.17, glibc 2.25 <sys/random.h>, which Swift's Glibc module
 * does not export): fills buffer with up to length bytes from the kernel's CSPRNG. Returns the
 * bytes written (at most 256 are never cut short once the pool is ready; more may be, by a
 * signal), or -1 with errno set. */
long photos_getrandom(void *buffer, size_t length);

/* sync_file_range(2) with SYNC_FILE_RANGE_WRITE over the whole file (Linux 2.6.17): starts
 * write-back of fd's dirty pages and returns without waiting for it to complete; makes nothing
 * durable (no metadata, no cache flush). Returns 0, or -1 with errno set. */
int photos_start_writeback(int fd);

/* copy_file_range(2) (Linux 4.5): copies up to len bytes from fd_in at *off_in to fd_out at its
 * file offset inside the kernel (page cache to page cache; a reflink on Btrfs and XFS), advancing
 * *off_in. Returns the bytes copied (0 at the end of fd_in), or -1 with errno set (EXDEV, EINVAL,
 * ENOSYS, EOPNOTSUPP where the file systems or the kernel cannot: copy with read/write instead). */
long photos_copy_file_range(int fd_in, int64_t *off_in, int fd_out, size_t len);

/* ioctl(fd_out, FICLONE, fd_in) (Linux 4.5): makes fd_out share fd_in's data extents (a reflink:
 * copy on write, no data copied) where the file system can (Btrfs, XFS with reflink=1). Returns 0,
 * or -1 with errno set (EOPNOTSUPP, EXDEV, EINVAL, ENOTTY where it cannot: copy instead). */
int photos_clone_file(int fd_out, int fd_in);

/* Installs one handler for SIGINT, SIGTERM and SIGHUP (sigaction(2), SA_RESTART) that records
 * the first signal for photos_stop_signal() and returns, so that a long command stops at its
 * next batch boundary; a second such signal takes its default action (the process ends).
 * Returns 0, or -1 with errno set. */
int photos_install_stop_handlers(void);

/* Gives SIGINT, SIGTERM and SIGHUP their default action again (while a command asks a question:
 * Ctrl-C ends it at once, before anything changed). Returns 1 when the handlers were installed
 * (install them again afterwards), else 0. */
int photos_suspend_stop_handlers(void);

/* The signal number recorded by the handler of photos_install_stop_handlers(), or 0. */
int photos_stop_signal(void);

/* Records sig as if the handler had received it (for tests). */
void photos_request_stop(int sig);

/* posix_openpt(3) + grantpt + unlockpt + ptsname_r (declared only under _XOPEN_SOURCE): opens
 * a pseudo-terminal's master side and writes its slave's path (/dev/pts/N) into name (capacity
 * bytes). Returns the master descriptor, or -1 with errno set. For tests that run the binary on
 * a terminal. */
int photos_open_pty(char *name, unsigned long capacity);

#endif
