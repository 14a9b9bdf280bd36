// Fixture (threads, #16), built by e2e_replay_threads_preempt only where Go
// is installed: four goroutines spin on the CPU (s += i ^ id, 2e7 times
// each) across tick checkpoints. Go preempts a goroutine every 10 ms by
// SIGURG and later resumes it, on any thread, at the interrupted pc.
// Prints each goroutine's sum.
package main

import (
	"fmt"
	"sync"
)

func main() {
	var wg sync.WaitGroup
	sums := make([]int, 4)
	for id := 0; id < 4; id++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			s := 0
			for i := 0; i < 20000000; i++ {
				s += i ^ id
			}
			sums[id] = s
		}(id)
	}
	wg.Wait()
	for id, s := range sums {
		fmt.Println(id, s)
	}
}
