/* Tracee for the process-control and checkpoint-capture tests: obeys one-line
 * commands on stdin, answers "OK <hex>" on stdout, and blocks in read()
 * between commands so the tests can stop it at a known point.
 *   M n        mmap n anonymous rw pages, each filled with its index+1; -> address
 *   W a n b    fill n pages from address a with byte b
 *   U a n      munmap n pages at a
 *   D a n      madvise(MADV_DONTNEED) n pages at a
 *   B n        grow brk by n pages and fill them with 0x5b; -> old brk
 *   R          a read-only page holding "read-only page"; -> address
 *   G          -> address of a 64 KiB global buffer (pattern 0..255 repeating)
 *   H          install a SIGUSR1 handler (SA_RESTART); -> handler address
 *   F a n      mmap(MAP_FIXED) n fresh anonymous pages over a, write 0xf0 to the first
 *   T          start a second thread (it blocks in pause()); -> its tid
 *   S path     map the first page of file `path`, opened read-only, MAP_SHARED; -> address
 *   O path     open `path` read-only and keep it open; -> fd
 *   K n        fill n pages of stack below this frame with 0x6b (no syscall); -> lowest address
 *   Q          exit 0 */
#define _GNU_SOURCE
#include <alloca.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned char global_buffer[65536];
static volatile int usr1_count;

static void on_usr1(int sig) { (void)sig; usr1_count++; }

static volatile pid_t thread_tid;

static void* second_thread(void* arg) {
  (void)arg;
  thread_tid = gettid();
  for (;;) pause();
  return NULL;
}

/* Deep enough and the [stack] mapping grows, by page faults alone. */
static __attribute__((noinline)) uintptr_t fill_stack(unsigned long n) {
  unsigned char* p = alloca(n * 4096);
  for (unsigned long i = n; i-- > 0;) memset(p + i * 4096, 0x6b, 4096);
  return (uintptr_t)p;
}

static void reply(uintptr_t value) {
  printf("OK %lx\n", (unsigned long)value);
  fflush(stdout);
}

int main(void) {
  for (size_t i = 0; i < sizeof global_buffer; i++) global_buffer[i] = (unsigned char)i;
  char line[256];
  while (fgets(line, sizeof line, stdin)) {
    unsigned long a = 0, n = 0, b = 0;
    switch (line[0]) {
      case 'M': {
        sscanf(line + 1, "%lu", &n);
        unsigned char* p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return 2;
        for (unsigned long i = 0; i < n; i++) memset(p + i * 4096, (int)(i + 1), 4096);
        reply((uintptr_t)p);
        break;
      }
      case 'W':
        sscanf(line + 1, "%lx %lu %lx", &a, &n, &b);
        memset((void*)a, (int)b, n * 4096);
        reply(a);
        break;
      case 'U':
        sscanf(line + 1, "%lx %lu", &a, &n);
        reply((uintptr_t)munmap((void*)a, n * 4096));
        break;
      case 'D':
        sscanf(line + 1, "%lx %lu", &a, &n);
        reply((uintptr_t)madvise((void*)a, n * 4096, MADV_DONTNEED));
        break;
      case 'B': {
        sscanf(line + 1, "%lu", &n);
        unsigned char* old = sbrk((intptr_t)(n * 4096));
        if (old == (void*)-1) return 3;
        memset(old, 0x5b, n * 4096);
        reply((uintptr_t)old);
        break;
      }
      case 'R': {
        char* p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return 4;
        strcpy(p, "read-only page");
        mprotect(p, 4096, PROT_READ);
        reply((uintptr_t)p);
        break;
      }
      case 'G':
        reply((uintptr_t)global_buffer);
        break;
      case 'H': {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_usr1;
        sa.sa_flags = SA_RESTART;
        sigaddset(&sa.sa_mask, SIGUSR2);
        sigaction(SIGUSR1, &sa, NULL);
        reply((uintptr_t)on_usr1);
        break;
      }
      case 'F': {
        sscanf(line + 1, "%lx %lu", &a, &n);
        unsigned char* p = mmap((void*)a, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (p == MAP_FAILED) return 7;
        p[0] = 0xf0;
        reply((uintptr_t)p);
        break;
      }
      case 'T': {
        pthread_t t;
        if (pthread_create(&t, NULL, second_thread, NULL) != 0) return 6;
        while (!thread_tid) usleep(1000);
        reply((uintptr_t)thread_tid);
        break;
      }
      case 'S': {
        char path[200];
        if (sscanf(line + 1, "%199s", path) != 1) return 8;
        int fd = open(path, O_RDONLY);
        if (fd < 0) return 9;
        void* p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
        close(fd);
        if (p == MAP_FAILED) return 10;
        reply((uintptr_t)p);
        break;
      }
      case 'O': {
        char path[200];
        if (sscanf(line + 1, "%199s", path) != 1) return 11;
        int fd = open(path, O_RDONLY);
        if (fd < 0) return 12;
        reply((uintptr_t)fd);
        break;
      }
      case 'K':
        sscanf(line + 1, "%lu", &n);
        reply(fill_stack(n));
        break;
      case 'Q':
        return 0;
      default:
        return 5;
    }
  }
  return 0;
}
