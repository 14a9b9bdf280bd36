// rec_switchloop: a bytecode interpreter, mawk's shape: one function whose
// loop dispatches through a switch's jump table (`jmp *reg`), each case a few
// instructions ending in a jump back, the interpreter's variables in memory
// (so visits of a pc share their registers). Built with -O2 (CMakeLists.txt)
// so the switch becomes a table. Most pcs of the loop lie within 5 bytes of
// a jump: a checkpoint there takes the patch only at an anchor before it,
// which needs the table's entries (engine/replay/jump_table.h).
#include <stdio.h>
#include <stdlib.h>

enum { OP_ADD, OP_INC, OP_LT, OP_JT, OP_HALT, OP_SUB, OP_MUL, OP_NEG };

static volatile double s, i, n;
static volatile int flag;

__attribute__((noinline)) static void run(const unsigned char* code) {
  const unsigned char* pc = code;
  for (;;) {
    switch (*pc++) {
      case OP_ADD: s = s + i; break;
      case OP_INC: i = i + 1.0; break;
      case OP_LT: flag = i < n; break;
      case OP_JT: if (flag) pc = code; break;
      case OP_HALT: return;
      case OP_SUB: s = s - i; break;
      case OP_MUL: s = s * i; break;
      case OP_NEG: s = -s; break;
    }
  }
}

int main(int argc, char** argv) {
  static const unsigned char program[] = {OP_ADD, OP_INC, OP_LT, OP_JT, OP_HALT};
  n = argc > 1 ? atof(argv[1]) : 1e7;
  run(program);
  printf("rec_switchloop %.0f\n", s);
  return 0;
}
