/* Fixture for tests/e2e/test_crash_*.sh: a use-after-free that dies of
 * SIGSEGV. The list's second node is freed while head->next still points at
 * it; a new allocation reuses the chunk and its write smashes the stale
 * node's `next`; following the list then faults at address 0x10. With the
 * argument "abort" it calls abort() just before (death by SIGABRT). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wuse-after-free" /* the bug is the point */

struct node {
  long value;
  struct node *next;
};

/* Called from GDB (print square(3)) in the diversion tests. */
int square(int x) { return x * x; }

static struct node *make_list(void) {
  struct node *head = malloc(sizeof *head);
  struct node *tail = malloc(sizeof *tail);
  head->value = 1;
  head->next = tail;
  tail->value = 2;
  tail->next = NULL;
  return head;
}

int main(int argc, char **argv) {
  struct node *head = make_list();
  struct node *ptr = head->next;
  free(ptr); /* FREE */
  long *reuse = malloc(sizeof(struct node)); /* the freed chunk again */
  reuse[0] = 7;
  reuse[1] = 0x10; /* SMASH */
  if (write(1, "walking\n", 8) != 8) return 2;
  if (argc > 1 && argv[1][0] == 'a') abort(); /* ABORT */
  long v = ptr->next->value; /* CRASH */
  printf("%ld\n", v);
  return square((int)v);
}
