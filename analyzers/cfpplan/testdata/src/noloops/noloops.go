// Package noloops is package lu, planned without the loop heuristic:
// daxpy, called in a loop, is then logged. Run waits for its goroutines
// on a channel rather than lu's sync.WaitGroup, so that this fixture's
// analysistest run of its own imports nothing (sync would load runtime
// from source, about 5 s of CPU under -race); Run, which receives from
// the channel, is logged.
package noloops

var a []float64

func lu0(n int) { // want `lu0: logged spawned`
	for k := 0; k < n; k++ {
		a[k] /= 2
		for j := k + 1; j < n; j++ {
			daxpy(j, k)
		}
	}
}

func daxpy(j, k int) { // want `daxpy: logged spawned`
	a[j] -= a[k] * 0.5
}

// Run factors on two goroutines.
func Run(n int) { // want `Run: logged`
	done := make(chan bool)
	for range 2 {
		go func() { // want `Run\$1: logged spawned`
			lu0(n)
			done <- true
		}()
	}
	<-done
	<-done
}
