package subtests

import "testing"

func TestSequential(t *testing.T) { // want `^ctx: caller$`
	t.Run("seq", func(t *testing.T) {}) // want `^ctx: caller$`
}

func TestParallelSubtest(t *testing.T) { // want `^ctx: caller$`
	t.Run("par", func(t *testing.T) { // want `^ctx: parallel test TestParallelSubtest\$1$`
		t.Parallel()
	})
}

func TestTable(t *testing.T) { // want `^ctx: caller$`
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) { // want `^ctx: parallel test TestTable\$1 multi$`
			t.Parallel()
		})
	}
}

func TestParallel(t *testing.T) { // want `^ctx: parallel test TestParallel$`
	t.Parallel()
}
