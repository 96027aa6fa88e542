package inspect

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The page says how many calls the inspector missed as they came (the
// feed's queue full): the list left them out with nothing to say so, and
// listed fewer calls than listen answered and the capture held.
func TestPageSaysWhatTheFeedMissed(t *testing.T) {
	chrome := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chrome = p
			break
		}
	}
	if chrome == "" || testing.Short() {
		t.Skip("no Chromium on PATH, or -short: the page is read in a browser")
	}
	s := NewStore(feedQueue * 3)
	f := s.NewFeed()
	s.mu.Lock() // the store is busy: the feed's goroutine cannot store
	for i := 0; i < 2*feedQueue+2; i++ {
		f.Offer(record(i, "E", []byte(`{}`), 200), -1, nil, "", nil)
	}
	s.mu.Unlock()
	f.Close()
	srv := newTestServer(t, s, nil)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.NoSandbox,
		chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(actx)
	defer cancelTab()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var note string
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/?token="+testToken),
		chromedp.WaitVisible("#missed", chromedp.ByID),
		chromedp.Text("#missed", &note, chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("The inspector missed %d calls as they came", s.Dropped()); !strings.HasPrefix(note, want) {
		t.Errorf("the page says %q, want %q…", note, want)
	}
}
