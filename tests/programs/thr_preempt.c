// Fixture (threads, #16): Go's asynchronous preemption in a few lines. Two
// green threads ("goroutines") run the same CPU loop, which is hand-written
// code without CFI (as Go's) made of 3-byte instructions. A CPU-time
// itimer's SIGVTALRM, handled on a sigaltstack, preempts the running one the
// way Go's SIGURG handler does: it pushes the interrupted pc on the green
// thread's stack and makes it resume in preempt_switch, which saves the
// registers, switches stacks and returns into the other green thread at
// the pc where it was interrupted earlier, any instruction of the loop.
// A second pthread only waits, so the recording is a threaded one.
// Prints both sums (as native whatever the preemptions), and on stderr how
// many preemptions there were.
// usage: thr_preempt [ROUNDS] (default 40, of 1,000,000 steps per green thread)
#define _GNU_SOURCE  // REG_RIP, REG_RSP
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

// spin(n, id): sum of i ^ id for i < n. wait_for(flag): until *flag.
// Only these two may be preempted (Go's async safe points): they use no
// stack below rsp and no vector registers. No .cfi_startproc: like Go's
// code, no .eh_frame covers them. The int3s after each are padding.
uint64_t spin(uint64_t n, uint64_t id);
void wait_for(volatile int* flag);
void preempt_switch(void);
void green_entry(void);
extern char preemptible_start[], preemptible_end[];
asm(R"(
  .text
  .globl spin, wait_for, preempt_switch, green_entry, preemptible_start, preemptible_end
preemptible_start:
spin:
  xor %ecx, %ecx
  xor %eax, %eax
  jmp 2f
1:mov %rcx, %rdx
  xor %rsi, %rdx
  add %rdx, %rax
  inc %rcx
2:cmp %rdi, %rcx
  jl 1b
  ret
  .fill 16, 1, 0xcc
wait_for:
1:cmpl $0, (%rdi)
  je 1b
  ret
  .fill 16, 1, 0xcc
preemptible_end:

# [rsp] = the interrupted pc. Saves the flags and registers, keeps rsp in
# green_rsp[green_current], switches to the other green thread's and
# returns into it the same way.
preempt_switch:
  pushfq
  push %rax
  push %rbx
  push %rcx
  push %rdx
  push %rsi
  push %rdi
  push %rbp
  push %r8
  push %r9
  push %r10
  push %r11
  push %r12
  push %r13
  push %r14
  push %r15
  mov green_current(%rip), %rax
  lea green_rsp(%rip), %rbx
  mov %rsp, (%rbx,%rax,8)
  xor $1, %rax
  mov %rax, green_current(%rip)
  mov (%rbx,%rax,8), %rsp
  pop %r15
  pop %r14
  pop %r13
  pop %r12
  pop %r11
  pop %r10
  pop %r9
  pop %r8
  pop %rbp
  pop %rdi
  pop %rsi
  pop %rdx
  pop %rcx
  pop %rbx
  pop %rax
  popfq
  ret

green_entry:
  and $-16, %rsp
  call green_main
  ud2
)");

enum { kStack = 65536, kSavedWords = 16 };  // 15 registers and the flags
uint64_t green_rsp[2];
uint64_t green_current;  // 0: main's green thread, 1: the other
static uint64_t green_stack[kStack / 8] __attribute__((aligned(16)));
static unsigned char alt[65536] __attribute__((aligned(64)));
static volatile int green_done, never;
static volatile unsigned long preemptions;
static uint64_t rounds, sums[2];

void green_main(void) {
  sums[1] = spin(rounds * 1000000 + 12345, 1);
  green_done = 1;
  wait_for(&never);  // parked: main's green thread goes on
}

static void on_alarm(int sig, siginfo_t* si, void* ctx) {
  (void)sig;
  (void)si;
  greg_t* g = ((ucontext_t*)ctx)->uc_mcontext.gregs;
  const uint64_t pc = (uint64_t)g[REG_RIP];
  if (pc < (uint64_t)preemptible_start || pc >= (uint64_t)preemptible_end) return;
  g[REG_RSP] -= 8;
  *(uint64_t*)g[REG_RSP] = pc;
  g[REG_RIP] = (greg_t)preempt_switch;
  preemptions++;
}

static int hold[2];
static void* waiter(void* arg) {
  (void)arg;
  char c;
  return (void*)(long)read(hold[0], &c, 1);
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? strtoull(argv[1], NULL, 10) : 40;
  // The other green thread starts as if preempted right before green_entry.
  uint64_t* top = green_stack + kStack / 8 - 8;
  *--top = (uint64_t)green_entry;
  *--top = 0x202;  // flags
  for (int i = 0; i < kSavedWords - 1; i++) *--top = 0;
  green_rsp[1] = (uint64_t)top;

  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);  // the waiter never takes SIGVTALRM
  pipe(hold);
  pthread_t w;
  pthread_create(&w, NULL, waiter, NULL);
  pthread_sigmask(SIG_UNBLOCK, &all, NULL);

  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
  sigaltstack(&ss, NULL);
  struct sigaction sa = {.sa_sigaction = on_alarm, .sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART};
  sigaction(SIGVTALRM, &sa, NULL);
  struct itimerval every = {{0, 1000}, {0, 1000}};  // every 1 ms of CPU time
  setitimer(ITIMER_VIRTUAL, &every, NULL);

  sums[0] = spin(rounds * 1000000, 0);
  wait_for(&green_done);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_VIRTUAL, &off, NULL);

  write(hold[1], "x", 1);
  pthread_join(w, NULL);
  printf("sums %llu %llu\n", (unsigned long long)sums[0], (unsigned long long)sums[1]);
  fprintf(stderr, "preemptions %lu\n", preemptions);
  return 0;
}
