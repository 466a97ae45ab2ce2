package screening

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"unsafe"
)

// TestDecodeEntities: bodies decode in order whatever goroutine decodes
// them, repeated strings are shared, slices hold no spare capacity, and a
// count that differs or a bad body is an error.
func TestDecodeEntities(t *testing.T) {
	var want []Entity
	var bodies [][]byte
	for i := range 1000 {
		e := Entity{ID: fmt.Sprint(i), Schema: Person, Names: []Name{{Full: fmt.Sprintf("Name %d", i), Type: Primary}, {Full: "Alias", Type: Alias}, {Full: "Other", Type: Alias}},
			Countries: []string{"RU"}, Programs: []string{"sanction"}, DOBs: []string{"1970"}}
		want = append(want, e)
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	feed := func(bs [][]byte) func(func([]byte) error) error {
		return func(fn func([]byte) error) error {
			for _, b := range bs {
				if err := fn(b); err != nil {
					return err
				}
			}
			return nil
		}
	}
	got, err := DecodeEntities(len(bodies), feed(bodies))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("decoded entities differ from the encoded ones")
	}
	shared := 0
	for i := range got {
		if cap(got[i].Names) != len(got[i].Names) {
			t.Fatalf("entity %d: names cap %d for %d", i, cap(got[i].Names), len(got[i].Names))
		}
		if unsafe.StringData(got[i].Countries[0]) == unsafe.StringData(got[0].Countries[0]) {
			shared++
		}
	}
	// One copy per decoding goroutine at most.
	if shared < len(got)/8 {
		t.Errorf("country strings shared by %d of %d entities", shared, len(got))
	}
	if _, err := DecodeEntities(len(bodies)+1, feed(bodies)); !errors.Is(err, ErrEntityCount) {
		t.Errorf("one body short: %v", err)
	}
	if _, err := DecodeEntities(len(bodies)-1, feed(bodies)); !errors.Is(err, ErrEntityCount) {
		t.Errorf("one body more: %v", err)
	}
	bad := append([][]byte{}, bodies...)
	bad[600] = []byte(`{"id":`)
	if _, err := DecodeEntities(len(bad), feed(bad)); err == nil {
		t.Error("a bad body decoded")
	}
	stop := errors.New("stop")
	if _, err := DecodeEntities(len(bodies), func(fn func([]byte) error) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("the reader's error: %v", err)
	}
}
