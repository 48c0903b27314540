package conf

import "testing"

func TestEncode(t *testing.T) {
	got, err := Encode(Settings{Workers: 4})
	if err != nil || got != "workers: 4\n" {
		t.Fatalf("Encode = %q, %v", got, err)
	}
}
