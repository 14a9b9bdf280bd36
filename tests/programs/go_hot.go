// Fixture (#20), built by e2e_replay_gdb_threads_hot_loop only where Go is
// installed: main's hot loop runs while three goroutines spin on other
// threads (Go preempts them by SIGURG). The loop keeps its counter and sum
// in package variables, so GDB prints them in optimized code: at the
// `total +=` line, step == i and total == 3 * i * (i - 1) / 2.
// hot ends with a load and its int3 padding is long: a checkpoint inside
// the loop is reached by a jump relayed to that padding (relay_site.h).
package main

import (
	"fmt"
	"sync"
)

var sums [4]int
var step, total int

func spin(id int, wg *sync.WaitGroup) {
	defer wg.Done()
	s := 0
	for i := 0; i < 20000000; i++ {
		s += i ^ id
	}
	sums[id] = s
}

//go:noinline
func hot(n int) int {
	for i := 0; i < n; i++ { /* loop */
		step = i /* step */
		total += i * 3 /* add */
	}
	return total /* after */
}

func main() {
	var wg sync.WaitGroup
	for id := 1; id < 4; id++ {
		wg.Add(1)
		go spin(id, &wg)
	}
	t := hot(30000000)
	wg.Wait()
	fmt.Println(step, t, sums[1], sums[2], sums[3])
}
