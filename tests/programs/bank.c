// Fixture and demo: money moves between accounts for a while; the total must
// stay constant. A planted bug at transfer BUG_AT (argv[2], default 61728395)
// loses one unit. argv[1] = number of transfers (default 100000000).
// Prints the final total; exits 1 when the invariant is broken.
#include <stdio.h>
#include <stdlib.h>

#define ACCOUNTS 64
#define INITIAL 1000

long accounts[ACCOUNTS];
long total_expected;
long transfers_done;
long bug_at;

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned long next_random(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (unsigned long)rng_state;
}

long total_balance(void) {
  long sum = 0;
  for (int i = 0; i < ACCOUNTS; i++) sum += accounts[i];
  return sum;
}

static void transfer(int from, int to, long amount) {
  if (accounts[from] < amount) return;
  accounts[from] -= amount;
  if (transfers_done == bug_at)
    accounts[to] += amount - 1;  // the planted bug: one unit vanishes
  else
    accounts[to] += amount;
  transfers_done++;
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000000;
  bug_at = argc > 2 ? atol(argv[2]) : 61728395;
  for (int i = 0; i < ACCOUNTS; i++) accounts[i] = INITIAL;
  total_expected = total_balance();
  for (long i = 0; i < n; i++) {
    unsigned long r = next_random();
    transfer((int)(r % ACCOUNTS), (int)((r >> 8) % ACCOUNTS), (long)((r >> 16) % 50));
  }
  long total = total_balance();
  printf("transfers %ld total %ld expected %ld\n", transfers_done, total, total_expected);
  return total == total_expected ? 0 : 1;
}
