// Package afterfunc: time.AfterFunc and context.AfterFunc run their
// function on a goroutine of its own that nothing joins.
package afterfunc

import (
	"context"
	"time"
)

func expire() {} // want `^ctx: detached function expire$`

func Arm(ctx context.Context) { // want `^ctx: caller$`
	time.AfterFunc(time.Second, expire)
	context.AfterFunc(ctx, func() {}) // want `^ctx: detached function Arm\$1$`
}
