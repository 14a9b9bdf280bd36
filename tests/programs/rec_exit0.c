// Exits at once: what a recording costs beyond the program itself
// (bench/fixedcost).
int main(void) { return 0; }
