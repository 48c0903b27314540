package shim_test

import (
	"sync"
	"testing"
	"time"
	"unsafe"

	precog_shim "github.com/precog-dev/precog/shim"
)

// These assignments pin the API's signatures: the instrumenter emits calls of
// exactly these shapes, so a change here must be agreed with it first.
var (
	_ func(uint32) uint64                                             = precog_shim.Go
	_ func(uint64)                                                    = precog_shim.Begin
	_ func()                                                          = precog_shim.End
	_ func(uint32, *sync.Mutex)                                       = precog_shim.Lock
	_ func(uint32, *sync.Mutex)                                       = precog_shim.Unlock
	_ func(uint32, *sync.Mutex) bool                                  = precog_shim.TryLock
	_ func(uint32, *sync.RWMutex)                                     = precog_shim.RWLock
	_ func(uint32, *sync.RWMutex)                                     = precog_shim.RWUnlock
	_ func(uint32, *sync.RWMutex) bool                                = precog_shim.RWTryLock
	_ func(uint32, *sync.RWMutex)                                     = precog_shim.RLock
	_ func(uint32, *sync.RWMutex)                                     = precog_shim.RUnlock
	_ func(uint32, *sync.RWMutex) bool                                = precog_shim.TryRLock
	_ func(uint32, sync.Locker)                                       = precog_shim.LockerLock
	_ func(uint32, sync.Locker)                                       = precog_shim.LockerUnlock
	_ func(uint32, *sync.Mutex) func()                                = precog_shim.LockFunc
	_ func(uint32, *sync.Mutex) func()                                = precog_shim.UnlockFunc
	_ func(uint32, *sync.RWMutex) func()                              = precog_shim.RWLockFunc
	_ func(uint32, *sync.RWMutex) func()                              = precog_shim.RWUnlockFunc
	_ func(uint32, *sync.RWMutex) func()                              = precog_shim.RLockFunc
	_ func(uint32, *sync.RWMutex) func()                              = precog_shim.RUnlockFunc
	_ func(uint32, *sync.WaitGroup, int)                              = precog_shim.WGAdd
	_ func(uint32, *sync.WaitGroup)                                   = precog_shim.WGDone
	_ func(uint32, *sync.WaitGroup)                                   = precog_shim.WGWait
	_ func(uint32, *sync.WaitGroup, func())                           = precog_shim.WGGo
	_ func(uint32, *sync.Once, func())                                = precog_shim.OnceDo
	_ func(uint32, *sync.Cond)                                        = precog_shim.CondWait
	_ func(uint32, *sync.Cond)                                        = precog_shim.CondSignal
	_ func(uint32, *sync.Cond)                                        = precog_shim.CondBroadcast
	_ func(uint32, unsafe.Pointer, func()) func()                     = precog_shim.Task
	_ func(uint32, unsafe.Pointer, func() error) func() error         = precog_shim.TaskErr
	_ func(uint32, unsafe.Pointer)                                    = precog_shim.Waited
	_ func(uint32, unsafe.Pointer, error) error                       = precog_shim.WaitedErr
	_ func(uint32, func() bool) func() bool                           = precog_shim.CondBool
	_ func(uint32, func(int)) func(int)                               = precog_shim.CondWith[int]
	_ func(uint32, bool) bool                                         = precog_shim.CondWaited
	_ func(uint32)                                                    = precog_shim.CondReturned
	_ func(uint32, chan int) chan int                                 = precog_shim.MakeChan[int]
	_ func(uint32, chan<- int, int)                                   = precog_shim.Send[int]
	_ func(uint32, <-chan int) int                                    = precog_shim.Recv[int]
	_ func(uint32, <-chan int) (int, bool)                            = precog_shim.Recv2[int]
	_ func(uint32, chan<- int)                                        = precog_shim.Close[int]
	_ func(uint32, int, unsafe.Pointer, bool)                         = precog_shim.SelectRecv
	_ func(uint32, int, unsafe.Pointer)                               = precog_shim.SelectSend
	_ func(uint32)                                                    = precog_shim.SelectDefault
	_ func(uint32) (int, <-chan struct{})                             = precog_shim.SelectPlan
	_ func(chan int) unsafe.Pointer                                   = precog_shim.ChanAddr[int]
	_ func(<-chan int) unsafe.Pointer                                 = precog_shim.ChanAddrRecv[int]
	_ func(chan<- int) unsafe.Pointer                                 = precog_shim.ChanAddrSend[int]
	_ func(uint32, *int) *int                                         = precog_shim.R[int]
	_ func(uint32, *int) *int                                         = precog_shim.RI[int]
	_ func(uint32, *int, int)                                         = precog_shim.W[int]
	_ func(uint32, unsafe.Pointer)                                    = precog_shim.Read
	_ func(uint32, unsafe.Pointer, uint64)                            = precog_shim.Write
	_ func(uint32, *int)                                              = precog_shim.Wrote[int]
	_ func(uint32, []*int, ...*int) []*int                            = precog_shim.Append[[]*int, *int]
	_ func(uint32, map[string]int) map[string]int                     = precog_shim.MR[map[string]int]
	_ func(uint32, map[string]int) map[string]int                     = precog_shim.MW[map[string]int]
	_ func(uint32, map[string]int) map[string]int                     = precog_shim.MI[map[string]int]
	_ func(uint32, map[string]int) map[string]int                     = precog_shim.MakeMap[map[string]int]
	_ func(uint32, *struct{ a int }) *struct{ a int }                 = precog_shim.New[struct{ a int }]
	_ func(*precog_shim.Local, uint32, *int) *int                     = precog_shim.RL[int]
	_ func(*precog_shim.Local, uint32, *int) *int                     = precog_shim.RIL[int]
	_ func(*precog_shim.Local, uint32, *int, int)                     = precog_shim.WL[int]
	_ func(*precog_shim.Local, uint32, *int, int)                     = precog_shim.WN[int]
	_ func(*precog_shim.Local, uint32, **int, *int)                   = precog_shim.WP[*int]
	_ func(*precog_shim.Local, uint32, map[string]int) map[string]int = precog_shim.MRL[map[string]int]
	_ func(*precog_shim.Local, uint32, map[string]int) map[string]int = precog_shim.MWL[map[string]int]
	_ func(*precog_shim.Local, uint32, map[string]int) map[string]int = precog_shim.MIL[map[string]int]
	_ func(uint32, unsafe.Pointer, uint64)                            = precog_shim.AtomicLoad
	_ func(uint32, unsafe.Pointer, uint64)                            = precog_shim.AtomicStore
	_ func(uint32)                                                    = precog_shim.Bubble
	_ func(uint32, *sync.Pool, any)                                   = precog_shim.PoolPut
	_ func(uint32, *sync.Pool) any                                    = precog_shim.PoolGet
	_ func(uint32, time.Duration)                                     = precog_shim.Sleep
	_ func(uint32, func())                                            = precog_shim.SyncWait
	_ func(uint32, time.Duration, func()) *time.Timer                 = precog_shim.AfterFunc
	_ func(uint32, func(*testing.T)) func(*testing.T)                 = precog_shim.BubbleFunc[*testing.T]
	_ func(uint32, func()) func()                                     = precog_shim.BubbleRun
	_ func(uint32)                                                    = precog_shim.Enter
	_ func(uint32)                                                    = precog_shim.Exit
	_ func(precog_shim.TB)                                            = precog_shim.TestStart
	_ func(uint32, func()) func()                                     = precog_shim.Cancelling[func()]

	_ func(uint32, *int32, int32) int32                                  = precog_shim.AtomicAddInt32
	_ func(uint32, *int64, int64) int64                                  = precog_shim.AtomicAddInt64
	_ func(uint32, *uint32, uint32) uint32                               = precog_shim.AtomicAddUint32
	_ func(uint32, *uint64, uint64) uint64                               = precog_shim.AtomicAddUint64
	_ func(uint32, *uintptr, uintptr) uintptr                            = precog_shim.AtomicAddUintptr
	_ func(uint32, *int32) int32                                         = precog_shim.AtomicLoadInt32
	_ func(uint32, *unsafe.Pointer) unsafe.Pointer                       = precog_shim.AtomicLoadPointer
	_ func(uint32, *int64, int64)                                        = precog_shim.AtomicStoreInt64
	_ func(uint32, *unsafe.Pointer, unsafe.Pointer)                      = precog_shim.AtomicStorePointer
	_ func(uint32, *uint32, uint32) uint32                               = precog_shim.AtomicSwapUint32
	_ func(uint32, *unsafe.Pointer, unsafe.Pointer) unsafe.Pointer       = precog_shim.AtomicSwapPointer
	_ func(uint32, *uint64, uint64, uint64) bool                         = precog_shim.AtomicCompareAndSwapUint64
	_ func(uint32, *unsafe.Pointer, unsafe.Pointer, unsafe.Pointer) bool = precog_shim.AtomicCompareAndSwapPointer
)
