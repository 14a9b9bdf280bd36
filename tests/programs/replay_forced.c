/* Replay fixture: an unmodelled syscall (capget: the recorder has no model
 * for it) between two short compute bursts, so the recording holds a forced
 * checkpoint that replay must cross by restore. Prints its result. */
#include <linux/capability.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
  volatile unsigned long long x = 1;
  for (int i = 0; i < 100000; i++) x = x * 3 + 1;
  struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  long rc = syscall(SYS_capget, &hdr, data);
  for (int i = 0; i < 100000; i++) x = x * 3 + 1;
  printf("replay_forced: capget %ld effective %x\n", rc, data[0].effective);
  return 0;
}
