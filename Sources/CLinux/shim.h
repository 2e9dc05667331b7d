// The POSIX and Linux interfaces the platform layer uses. Swift cannot call
// variadic C functions or read macros such as errno, so small inline
// wrappers give them fixed signatures.
#ifndef NN_CLINUX_SHIM_H
#define NN_CLINUX_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <termios.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <linux/input.h>
#include <linux/fb.h>

static inline int nn_errno(void) { return errno; }
static inline void nn_set_errno(int value) { errno = value; }
static inline int nn_open(const char *path, int flags, unsigned mode) { return open(path, flags, (mode_t)mode); }
static inline int nn_fcntl_int(int fd, int cmd, int arg) { return fcntl(fd, cmd, arg); }
static inline int nn_ioctl_int(int fd, unsigned long request, long arg) { return ioctl(fd, request, arg); }
/* Runs the calling thread on one CPU only (CPUs 0-63). For benchmarks that
   keep two processes on separate cores; glibc declares sched_setaffinity only
   under _GNU_SOURCE, which this header does not set. */
static inline int nn_pin_to_cpu(int cpu) {
    unsigned long mask = 1UL << cpu;
    return (int)syscall(SYS_sched_setaffinity, 0, sizeof mask, &mask);
}
static inline int nn_ioctl_ptr(int fd, unsigned long request, void *arg) { return ioctl(fd, request, arg); }
/* Puts the calling thread under SCHED_BATCH (3: glibc names it only under
   _GNU_SOURCE): a wake-up of the thread no longer preempts the task running
   on its CPU, so what that task is still delivering is read in one turn. */
static inline int nn_batch_scheduling(void) {
    int priority = 0;
    return (int)syscall(SYS_sched_setscheduler, 0, 3, &priority);
}

/// Blocks SIGINT and SIGTERM and returns a signalfd that reports them, so a
/// shutdown request arrives through the poll loop like any other input.
static inline int nn_termination_signalfd(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static inline void nn_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

static inline int64_t nn_monotonic_microseconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* CPU time of the calling thread: what a computation costs, whatever else
   shares the cores (benchmarks on a busy machine). */
static inline int64_t nn_thread_cpu_nanoseconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t nn_realtime_microseconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static inline void *nn_mmap_shared(int fd, size_t length, int64_t offset) {
    void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
    return p == MAP_FAILED ? NULL : p;
}

static inline FILE *nn_stderr(void) { return stderr; }
static inline FILE *nn_stdout(void) { return stdout; }

/* Starts `path argument` detached from the caller: a grandchild in its own
   session, reparented to init (so nobody has to reap it), with stdin, stdout
   and stderr on /dev/null and no other descriptor of the caller (the
   watchdog device above all: a child holding it open would keep the next
   firmware from opening it). `second`: a further argument, or NULL.
   0 when started, -1 when fork failed. */
static inline int nn_spawn_detached(const char *path, const char *argument, const char *second) {
    pid_t child = fork();
    if (child < 0) return -1;
    if (child == 0) {
        if (fork() == 0) {
            setsid();
            int null = open("/dev/null", O_RDWR);
            if (null >= 0) { dup2(null, 0); dup2(null, 1); dup2(null, 2); }
            for (int fd = 3; fd < 4096; fd++) close(fd);
            execl(path, path, argument, second, (char *)0);
        }
        _exit(0);
    }
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    return 0;
}

/* Bytes an unprivileged writer may still use on the filesystem holding
   `path` (statvfs: f_bavail blocks of f_frsize); -1 when it cannot tell. */
static inline long long nn_free_bytes(const char *path) {
    struct statvfs s;
    if (statvfs(path, &s) != 0) return -1;
    return (long long)s.f_bavail * (long long)s.f_frsize;
}

// evdev ioctls (linux/input.h). Their request numbers are function-like
// macros, which Swift does not import.
#include <sys/inotify.h>
static inline unsigned long nn_eviocgbit(unsigned int type, unsigned int length) { return EVIOCGBIT(type, length); }
static inline unsigned long nn_eviocgabs(unsigned int axis) { return EVIOCGABS(axis); }
static inline unsigned long nn_eviocgprop(unsigned int length) { return EVIOCGPROP(length); }
static inline unsigned long nn_eviocgname(unsigned int length) { return EVIOCGNAME(length); }
static inline unsigned long nn_eviocsclockid(void) { return EVIOCSCLOCKID; }

// Watchdog ioctls (linux/watchdog.h): request numbers are _IOR/_IOWR
// macros, which Swift does not import.
#include <linux/watchdog.h>
static inline unsigned long nn_wdioc_keepalive(void) { return WDIOC_KEEPALIVE; }
static inline unsigned long nn_wdioc_settimeout(void) { return WDIOC_SETTIMEOUT; }
static inline unsigned long nn_wdioc_gettimeout(void) { return WDIOC_GETTIMEOUT; }

// The farewell of a crashing head unit: HCI Disconnect for each live link,
// written to the controller from the crash signal's handler, so each phone
// hears the link end at once instead of waiting out its supervision timeout
// (the restarted firmware resets the controller, which drops links without
// a word). The bytes are prepared in advance by `nn_farewell_set`; the
// handler only calls async-signal-safe functions (write, poll, read,
// clock_gettime, sigaction, raise). Call these from ONE Swift file
// (Drivers/CrashFarewell.swift): each file that inlines them has its own
// copy of the state.
struct nn_farewell {
    volatile sig_atomic_t fd;
    volatile sig_atomic_t length;   // 0: nothing to say (so all-zero is disarmed: .bss, not .data)
    volatile sig_atomic_t links;    // Disconnection Complete events to wait for
    uint8_t bytes[128];
    uint8_t stack[32768];           // the handler's own: a stack overflow is a SIGSEGV too
};

static inline struct nn_farewell *nn_farewell_state(void) {
    static struct nn_farewell state;
    return &state;
}

/// What to write to `fd` on a crash; `length` 0 says nothing. Returns -1
/// when the bytes do not fit.
static inline int nn_farewell_set(int fd, const uint8_t *bytes, int length, int links) {
    struct nn_farewell *s = nn_farewell_state();
    s->length = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (length < 0 || length > (int)sizeof s->bytes) return -1;
    if (length > 0) memcpy(s->bytes, bytes, (size_t)length);
    s->fd = fd;
    s->links = links;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->length = length;
    return 0;
}

static inline int64_t nn_farewell_elapsed_ms(const struct timespec *since) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)(now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

static inline void nn_farewell_handler(int sig) {
    struct nn_farewell *s = nn_farewell_state();
    int length = s->length, fd = s->fd, links = s->links;
    s->length = 0;  // once
    if (length > 0 && fd >= 0 && write(fd, s->bytes, (size_t)length) == length) {
        // The controller tells the phone (LL_TERMINATE_IND) and reports
        // Disconnection Complete (H4 04 05 04) once the phone acknowledged:
        // wait for it, briefly, so closing the transport as the process
        // dies cannot lose the command on its way out.
        struct timespec start;
        clock_gettime(CLOCK_MONOTONIC, &start);
        uint8_t in[512];
        int seen = 0;
        for (;;) {
            int64_t left = 500 - nn_farewell_elapsed_ms(&start);
            if (left <= 0 || seen >= links) break;
            struct pollfd p = { fd, POLLIN, 0 };
            if (poll(&p, 1, (int)left) <= 0) break;
            ssize_t n = read(fd, in, sizeof in);
            if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
            if (n <= 0) break;
            for (ssize_t i = 0; i + 2 < n; i++)
                if (in[i] == 0x04 && in[i + 1] == 0x05 && in[i + 2] == 0x04) seen++;
        }
    }
    // Die of the signal as if there had been no handler (SA_RESETHAND put
    // the default back; the signal is blocked until the handler returns).
    raise(sig);
}

/// Installs the handler for the signals a crash raises (a Swift trap is
/// SIGTRAP on arm64, SIGILL on x86-64), on its own stack. Returns -1 on failure.
static inline int nn_farewell_install(void) {
    struct nn_farewell *s = nn_farewell_state();
    stack_t stack = { .ss_sp = s->stack, .ss_flags = 0, .ss_size = sizeof s->stack };
    if (sigaltstack(&stack, NULL) != 0) return -1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = nn_farewell_handler;
    action.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    const int signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
    return 0;
}

#endif
