/* The agent's process clock: CLOCK_REALTIME shifted to the scenario's simulated time.
 *
 * Preloaded into every dynamic program of the image (/etc/ld.so.preload, Containerfile.base: some
 * harnesses strip LD_PRELOAD from the shells they spawn) but a no-op in any process without
 * GAIA2_SIMCLOCK_FILE, which the daemon (daemon/clock/process.py) sets for the agent only and keeps
 * at "<simulated - real seconds>" ("-65123456.250"): the daemon's own clock stays the machine's.
 * Only the calendar clock moves: clock_gettime(CLOCK_REALTIME*), gettimeofday() and time() (and the
 * absolute deadlines of timed waits move back, below); monotonic
 * clocks, sleeps and timeouts are the kernel's, untouched (libfaketime 0.9.10, Debian bookworm's,
 * breaks Python 3.11+'s time.sleep when monotonic time is left alone: its issue #426). The file is
 * read on every call, so a jump (wait_for_notification) shows at once; no file, no shift.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define NS 1000000000LL

static int (*real_clock_gettime)(clockid_t, struct timespec *);

/* "[+-]seconds[.fraction]" in nanoseconds; our own parser, as strtod follows the program's locale. */
static long long parse_ns(const char *s) {
    long long sec = 0, frac = 0, scale = NS / 10;
    int neg = 0;
    while (*s == ' ') s++;
    if (*s == '+' || *s == '-') neg = (*s++ == '-');
    for (; *s >= '0' && *s <= '9'; s++) {
        sec = sec * 10 + (*s - '0');
        if (sec > 1000000000000LL) return 0; /* nonsense: no shift */
    }
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9' && scale > 0; s++, scale /= 10) frac += (*s - '0') * scale;
    return neg ? -(sec * NS + frac) : sec * NS + frac;
}

/* Looked up once per process (the daemon, which has no GAIA2_SIMCLOCK_FILE, pays one lookup) and
 * copied (a program may rewrite its environment block). secure_getenv: a setuid program, which
 * /etc/ld.so.preload reaches too, never opens a path the agent named. */
static const char *clock_file(void) {
    static int looked;
    static const char *path;
    if (!looked) {
        const char *value = secure_getenv("GAIA2_SIMCLOCK_FILE");
        path = (value != NULL && *value != '\0') ? strdup(value) : NULL;
        looked = 1;
    }
    return path;
}

static long long offset_ns(void) {
    const char *path = clock_file();
    char buf[64];
    ssize_t n;
    int fd;
    if (path == NULL) return 0;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    return parse_ns(buf);
}

static int is_calendar_clock(clockid_t clock) {
    return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE || clock == CLOCK_TAI;
}

static void init_real(void) {
    if (real_clock_gettime == NULL) real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
}

int clock_gettime(clockid_t clock, struct timespec *tp) {
    int rc;
    init_real();
    rc = real_clock_gettime(clock, tp);
    if (rc == 0 && tp != NULL && is_calendar_clock(clock)) {
        long long t = (long long)tp->tv_sec * NS + tp->tv_nsec + offset_ns();
        tp->tv_sec = (time_t)(t / NS);
        tp->tv_nsec = (long)(t % NS);
        if (tp->tv_nsec < 0) { tp->tv_nsec += NS; tp->tv_sec -= 1; }
    }
    return rc;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    struct timespec ts;
    int rc = clock_gettime(CLOCK_REALTIME, &ts);
    if (rc == 0 && tv != NULL) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    if (tz != NULL) {
        ((struct timezone *)tz)->tz_minuteswest = 0;
        ((struct timezone *)tz)->tz_dsttime = 0;
    }
    return rc;
}

time_t time(time_t *out) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
    if (out != NULL) *out = ts.tv_sec;
    return ts.tv_sec;
}

/* Timed waits take absolute CLOCK_REALTIME deadlines, which the program computed from the shifted
 * clock while the kernel waits on the real one: a deadline in 2024 has always passed, so every wait
 * returned at once and waiting threads spun (Claude Code's Bun binary made ~50,000 futex calls per
 * turn, all ETIMEDOUT). A deadline nearer the simulated clock than the real one is moved back by
 * the offset; one nearer the real or the monotonic clock (a condition variable set to
 * CLOCK_MONOTONIC) is left alone. */
static const struct timespec *real_deadline(const struct timespec *abstime, struct timespec *out) {
    struct timespec now, mono;
    long long off, a, r, m, t, d;
    if (abstime == NULL || clock_file() == NULL) return abstime;
    init_real();
    if (real_clock_gettime(CLOCK_REALTIME, &now) != 0 || real_clock_gettime(CLOCK_MONOTONIC, &mono) != 0) return abstime;
    off = offset_ns();
    if (off == 0) return abstime;
    a = (long long)abstime->tv_sec * NS + abstime->tv_nsec;
    r = (long long)now.tv_sec * NS + now.tv_nsec;
    m = (long long)mono.tv_sec * NS + mono.tv_nsec;
    d = llabs(a - (r + off));
    if (d >= llabs(a - r) || d >= llabs(a - m)) return abstime;
    t = a - off;
    out->tv_sec = (time_t)(t / NS);
    out->tv_nsec = (long)(t % NS);
    if (out->tv_nsec < 0) { out->tv_nsec += NS; out->tv_sec -= 1; }
    return out;
}

int pthread_cond_timedwait(pthread_cond_t *restrict cond, pthread_mutex_t *restrict mutex,
                           const struct timespec *restrict abstime) {
    static int (*real)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
    struct timespec fixed;
    /* The current ABI's symbol: plain dlsym may return the pre-2.3.2 compatibility version. */
    if (real == NULL) real = dlvsym(RTLD_NEXT, "pthread_cond_timedwait", "GLIBC_2.3.2");
    if (real == NULL) real = dlsym(RTLD_NEXT, "pthread_cond_timedwait");
    return real(cond, mutex, real_deadline(abstime, &fixed));
}

int pthread_cond_clockwait(pthread_cond_t *restrict cond, pthread_mutex_t *restrict mutex, clockid_t clock,
                           const struct timespec *restrict abstime) {
    static int (*real)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
    struct timespec fixed;
    if (real == NULL) real = dlsym(RTLD_NEXT, "pthread_cond_clockwait");
    return real(cond, mutex, clock, is_calendar_clock(clock) ? real_deadline(abstime, &fixed) : abstime);
}

int sem_timedwait(sem_t *restrict sem, const struct timespec *restrict abstime) {
    static int (*real)(sem_t *, const struct timespec *);
    struct timespec fixed;
    if (real == NULL) real = dlsym(RTLD_NEXT, "sem_timedwait");
    return real(sem, real_deadline(abstime, &fixed));
}
