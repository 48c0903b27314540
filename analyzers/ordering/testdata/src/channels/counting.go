package channels

// Counting: as many receives as the channel can ever get sends, so every
// sender's work is done by the last one.
func Counted() {
	done := make(chan bool)
	go func() {
		a("counted")
		done <- true
	}()
	go func() {
		a("counted other")
		done <- true
	}()
	<-done
	<-done
	b("counted")       // want `^counted: a before b by channel$`
	b("counted other") // want `^counted other: a before b by channel$`
}

// Negative: one receive for two senders orders neither.
func TooFewReceives() {
	done := make(chan bool)
	go func() {
		a("too few")
		done <- true
	}()
	go func() {
		done <- true
	}()
	<-done
	b("too few") // want `^too few: unordered$`
}

// Negative: a sender in a loop may send more often than counted.
func SenderLoops(n int) {
	done := make(chan bool, n)
	go func() {
		a("sender loops")
		for i := 0; i < n; i++ {
			done <- true
		}
	}()
	go func() {
		done <- true
	}()
	<-done
	<-done
	b("sender loops") // want `^sender loops: unordered$`
}

// Negative: a close lets any number of receives through.
func Closed() {
	done := make(chan bool)
	go func() {
		a("closed")
		done <- true
	}()
	go func() {
		close(done)
	}()
	<-done
	<-done
	b("closed") // want `^closed: unordered$`
}

// Negative: the work comes after the send.
func WorkAfterSend() {
	done := make(chan bool)
	go func() {
		done <- true
		a("after send")
	}()
	go func() {
		done <- true
	}()
	<-done
	<-done
	b("after send") // want `^after send: unordered$`
}
