// Fixture for `slsdbg bisect` (tests/e2e/test_bisect_*.sh): money moves
// between two accounts for a few seconds. Each transfer commits both
// balances with one 8-byte store, so the invariant
//     bank.acct.checking + bank.acct.savings == total_expected
// holds at every instruction boundary until the planted bug, at transfer
// BUG (argv[2]), takes one unit out of savings with a single store on its own
// line (marked "planted bug"). argv[1] = number of transfers.
// current_transfer is the 1-based number of the transfer under way, so a
// debugger stopped anywhere knows which transfer it is in. Prints only what
// does not depend on timing; exits 1 when the money does not add up.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

union bisect_ledger {
  struct {
    int32_t checking;
    int32_t savings;
  } acct;
  uint64_t word;
};

// Initialised statically so the invariant holds from the first instruction.
union bisect_ledger bank = {.acct = {1000, 1000}};
long total_expected = 2000;
long current_transfer;
long bug_transfer;

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

// Each transfer is first audited: 256 rounds of arithmetic in locals only,
// unrolled. It keeps the watched ledger's writes (one per transfer) rare
// enough for watchpoints to be quick, and it is straight-line code on
// purpose: replay finds a checkpoint by trapping at its pc, and a checkpoint
// that lands in a tight loop would trap at every iteration.
#define AUDIT1(h) h = h * 6364136223846793005ULL + 1442695040888963407ULL;
#define AUDIT4(h) AUDIT1(h) AUDIT1(h) AUDIT1(h) AUDIT1(h)
#define AUDIT16(h) AUDIT4(h) AUDIT4(h) AUDIT4(h) AUDIT4(h)
#define AUDIT256(h) AUDIT16(h) AUDIT16(h) AUDIT16(h) AUDIT16(h) AUDIT16(h) AUDIT16(h) AUDIT16(h) AUDIT16(h) \
  AUDIT16(h) AUDIT16(h) AUDIT16(h) AUDIT16(h) AUDIT16(h) AUDIT16(h) AUDIT16(h) AUDIT16(h)

static int32_t audited_amount(uint64_t r) {
  uint64_t h = r;
  AUDIT256(h)
  return (int32_t)((r ^ (h & 1)) % 50);
}

static void transfer(int32_t amount, int to_savings) {
  union bisect_ledger next = bank;
  int32_t* from = to_savings ? &next.acct.checking : &next.acct.savings;
  int32_t* to = to_savings ? &next.acct.savings : &next.acct.checking;
  if (*from < amount) amount = *from;
  *from -= amount;
  *to += amount;
  bank.word = next.word;  // commit both balances at once
  if (current_transfer == bug_transfer)
    bank.acct.savings -= 1;  // planted bug: one unit vanishes
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 5000000;
  bug_transfer = argc > 2 ? atol(argv[2]) : n / 2;
  for (long i = 1; i <= n; i++) {
    current_transfer = i;
    uint64_t r = next_random();
    transfer(audited_amount(r), (int)((r >> 8) & 1));
  }
  long total = (long)bank.acct.checking + bank.acct.savings;
  printf("transfers %ld bug at %ld total %ld expected %ld\n", n, bug_transfer, total, total_expected);
  return total == total_expected ? 0 : 1;
}
