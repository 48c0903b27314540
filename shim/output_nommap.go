//go:build !linux && !darwin

package shim

import "os"

func mapFile(f *os.File, off int64, size int) ([]byte, error) { return nil, errNoMmap }
