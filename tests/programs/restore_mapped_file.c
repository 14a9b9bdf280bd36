// Fixture for restore: file-backed mappings. Maps PRIVATE_FILE privately and
// writes into its second page (a copy-on-write page that exists only in
// memory), maps SHARED_FILE shared and read-only, computes for a while, then
// prints a digest of both mappings as they are now. A restore must reproduce
// the recorded pages even when the files changed on disk since recording.
// usage: restore_mapped_file PRIVATE_FILE SHARED_FILE ITERATIONS
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned long long digest(const unsigned char* p, size_t n) {
  unsigned long long h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  size_t len = 3 * 4096;
  // O_RDWR for the shared file although it is mapped read-only: the capture's
  // userfaultfd write-protect registration needs VM_MAYWRITE on shared mappings.
  int pf = open(argv[1], O_RDONLY), sf = open(argv[2], O_RDWR);
  if (pf < 0 || sf < 0) return 3;
  unsigned char* priv = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, pf, 0);
  unsigned char* shared = mmap(NULL, len, PROT_READ, MAP_SHARED, sf, 0);
  if (priv == MAP_FAILED || shared == MAP_FAILED) return 4;
  close(pf);
  close(sf);
  memcpy(priv + 4096 + 100, "written in memory", 17);
  long n = atol(argv[3]);
  volatile unsigned long long x = 7;
  for (long i = 0; i < n; i++) x = x * 6364136223846793005ULL + 1;
  printf("private %llx [%.8s|%.17s|%.8s] shared %llx [%.8s]\n", digest(priv, len), (char*)priv,
         (char*)priv + 4096 + 100, (char*)priv + 8192, digest(shared, len), (char*)shared);
  return 0;
}
