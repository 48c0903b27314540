package wgaddwaitlate

import "testing"

func size(l string) int { return len(l) }

func TestCrawl(t *testing.T) {
	if got := Crawl([]string{"a", "bb"}, size); len(got) != 2 {
		t.Errorf("Crawl returned %d sizes, want 2", len(got))
	}
}

func TestSafeCrawl(t *testing.T) {
	if got := SafeCrawl([]string{"a", "bb"}, size); len(got) != 2 {
		t.Errorf("SafeCrawl returned %d sizes, want 2", len(got))
	}
}
