// Not a tracee: computes bisect_bank's history natively (the same source) to
// tell which transfers commit a ledger equal to the one already there (an
// account at 0, or an amount of 0). GDB's `watch` does not stop at such a
// write, so a test that counts watchpoint stops needs to know them.
// Usage: bisect_bank_same TRANSFERS BUG FROM COUNT
// prints the transfers in [FROM, FROM+COUNT) whose commit leaves bank.word
// unchanged, one per line.
#define main bisect_bank_main
#include "bisect_bank.c"
#undef main

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: bisect_bank_same TRANSFERS BUG FROM COUNT\n");
    return 2;
  }
  const long n = atol(argv[1]), from = atol(argv[3]), count = atol(argv[4]);
  bug_transfer = atol(argv[2]);
  for (long i = 1; i <= n && i < from + count; i++) {
    current_transfer = i;
    const uint64_t before = bank.word;
    const uint64_t r = next_random();
    transfer(audited_amount(r), (int)((r >> 8) & 1));
    if (i >= from && bank.word == before) printf("%ld\n", i);
  }
  return 0;
}
