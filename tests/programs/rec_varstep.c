// rec_varstep: a scan whose position advances by a step its data decide
// (1 to 8 bytes), as a parser's or a compressor's match loop does (gzip's
// deflate): no value moves by a constant step per iteration, so replay
// cannot name a checkpoint's visit from a few samples; the position only
// ever grows. `rec_varstep N`: scan N bytes (default 10^9).
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 1000000000UL;
  enum { kSize = 1 << 16 };
  static unsigned char data[kSize];
  for (unsigned i = 0; i < kSize; i++) data[i] = (unsigned char)((i * 2654435761u) >> 13);
  unsigned long pos = 0, sum = 0;
  while (pos < n) {
    const unsigned char b = data[pos & (kSize - 1)];
    sum += b;
    pos += 1 + (b & 7);
  }
  printf("rec_varstep %lu %lu\n", pos, sum);
  return 0;
}
