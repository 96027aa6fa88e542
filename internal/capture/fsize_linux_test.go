package capture

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A batch of records whose write(2) fails part way (a disk that filled:
// here the file-size limit stands in for it, in a process of its own)
// fails every record in it, and each caller answers its call 5xx; yet the
// records written whole before the failure stayed in the file, saying
// their calls were answered 200, and the last one torn. The file now
// ends where the batch began: it holds no record of a call that was not
// acknowledged.
func TestFailedBatchLeavesNoRecord(t *testing.T) {
	if path := os.Getenv("WHSIM_TEST_FSIZE_CAPTURE"); path != "" {
		if err := writeBatchOverLimit(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.ndjson")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailedBatchLeavesNoRecord$")
	cmd.Env = append(os.Environ(), "WHSIM_TEST_FSIZE_CAPTURE="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the writer: %v\n%s", err, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := Append(nil, fsizeRecord(0))
	if !bytes.Equal(data, first) {
		t.Errorf("the file holds %d bytes (%d lines), want the first record's %d alone", len(data), bytes.Count(data, []byte("\n")), len(first))
	}
}

// fsizeRecord is the record i of TestFailedBatchLeavesNoRecord.
func fsizeRecord(i int) *Record {
	r := &Record{Time: time.Unix(int64(i), 0).UTC(), Method: "POST", Path: fmt.Sprintf("/%d", i), Response: &Response{Status: 200}}
	r.SetBody(bytes.Repeat([]byte("a"), 1000))
	return r
}

// writeBatchOverLimit writes record 0, then records 1 and 2 as one batch
// under a file-size limit that takes record 1 whole and half of record 2,
// and checks that the batch failed.
func writeBatchOverLimit(path string) error {
	c, _, err := OpenFile(path, SyncNever)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Write(fsizeRecord(0)); err != nil {
		return err
	}
	l1, _ := Append(nil, fsizeRecord(1))
	l2, _ := Append(nil, fsizeRecord(2))
	limit := uint64(c.end) + uint64(len(l1)) + uint64(len(l2))/2
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		return err
	}
	// The two queued together, as writers that came while a write ran.
	c.mu.Lock()
	c.pending = append(append(c.pending, l1...), l2...)
	c.queued += 2
	c.end += int64(len(l1) + len(l2))
	c.flushLocked()
	err = c.err
	c.mu.Unlock()
	if err == nil {
		return fmt.Errorf("the batch over the limit did not fail")
	}
	return nil
}
