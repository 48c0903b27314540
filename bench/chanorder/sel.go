package selrace

import "context"

type Message struct {
	ctx     context.Context
	payload [48]byte
}

func (m *Message) SetContext(ctx context.Context) { m.ctx = ctx }
func (m *Message) Context() context.Context       { return m.ctx }

// SelectSend hands n fresh messages, each made by its own goroutine (at
// most 8 at once), to one consumer; each sender sends in a select that
// also watches ctx.Done (watermill's sendMessageToSubscriber). Every
// message is written before its send and read after its receive: no race.
func SelectSend(ctx context.Context, n int) int {
	ch := make(chan *Message, 64)
	done := make(chan int)
	go func() {
		c := 0
		for m := range ch {
			if m.Context() != nil {
				c++
			}
		}
		done <- c
	}()
	sem := make(chan struct{}, 8)
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		go func() {
			m := &Message{}
			m.SetContext(ctx)
			select {
			case ch <- m:
			case <-ctx.Done():
			}
			<-sem
		}()
	}
	for i := 0; i < cap(sem); i++ {
		sem <- struct{}{}
	}
	close(ch)
	return <-done
}

// SelectRecv: one producer makes each message, writes it and sends it;
// 8 workers receive in a select that also watches ctx.Done (half of them
// receive plainly every other time) and read it.
func SelectRecv(ctx context.Context, n int) int {
	ch := make(chan *Message, 64)
	counts := make(chan int)
	for w := 0; w < 8; w++ {
		go func() {
			c := 0
			for i := 0; ; i++ {
				var m *Message
				var ok bool
				if w%2 == 0 && i%2 == 0 {
					m, ok = <-ch
				} else {
					select {
					case m, ok = <-ch:
					case <-ctx.Done():
					}
				}
				if !ok {
					break
				}
				if m.Context() != nil {
					c++
				}
			}
			counts <- c
		}()
	}
	for i := 0; i < n; i++ {
		m := &Message{}
		m.SetContext(ctx)
		ch <- m
	}
	close(ch)
	c := 0
	for w := 0; w < 8; w++ {
		c += <-counts
	}
	return c
}
