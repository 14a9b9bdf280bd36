/* Fixture for tests/e2e/test_store_disk_use.sh: a few milliseconds of work,
 * linked statically (tests/programs/CMakeLists.txt), so its recording holds
 * little more than the program's own pages and shows the store's disk use
 * growing with the data rather than with preallocation. */
#include <unistd.h>

int main(void) {
  static char buf[64 * 1024];
  for (unsigned i = 0; i < sizeof buf; i++) buf[i] = (char)(i * 7);
  return write(1, buf, 4) == 4 ? 0 : 1;
}
