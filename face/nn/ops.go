package nn

import "fmt"

// AddChannels adds v[c] to every value of channel c, in place.
func (t *Tensor) AddChannels(v *Param) *Tensor {
	t.checkChannels(v)
	for i := 0; i < len(t.Data); i += t.C {
		row := t.Data[i : i+t.C]
		for c, b := range v.Data[:len(row)] {
			row[c] += b
		}
	}
	return t
}

// MulChannels multiplies every value of channel c by v[c], in place.
func (t *Tensor) MulChannels(v *Param) *Tensor {
	t.checkChannels(v)
	for i := 0; i < len(t.Data); i += t.C {
		row := t.Data[i : i+t.C]
		for c, s := range v.Data[:len(row)] {
			row[c] *= s
		}
	}
	return t
}

// SubChannels subtracts v[c] from every value of channel c, in place.
func (t *Tensor) SubChannels(v [3]float32) *Tensor {
	if t.C != len(v) {
		panic(fmt.Sprintf("nn: subtract %d channel values from %s", len(v), t.Shape()))
	}
	for i := 0; i < len(t.Data); i += 3 {
		t.Data[i] -= v[0]
		t.Data[i+1] -= v[1]
		t.Data[i+2] -= v[2]
	}
	return t
}

// Scale multiplies every value by s, in place.
func (t *Tensor) Scale(s float32) *Tensor {
	for i := range t.Data {
		t.Data[i] *= s
	}
	return t
}

// Div divides every value by d, in place. (Dividing is not always the
// same float32 as multiplying by 1/d; the models divide.)
func (t *Tensor) Div(d float32) *Tensor {
	for i := range t.Data {
		t.Data[i] /= d
	}
	return t
}

// ReLU sets negative values to zero, in place.
func (t *Tensor) ReLU() *Tensor {
	for i, v := range t.Data {
		if v < 0 {
			t.Data[i] = 0
		}
	}
	return t
}

// LeakyReLU applies the tiny YOLO v2 activation max(x, 0.1x), in place,
// computed as face-api.js does (relu(x − 0.1x) + 0.1x, in float32) so the
// values match to the bit.
func (t *Tensor) LeakyReLU() *Tensor {
	const slope = float32(0.1)
	for i, v := range t.Data {
		m := v * slope
		d := v - m
		if d < 0 {
			d = 0
		}
		t.Data[i] = d + m
	}
	return t
}

// Add adds u to t element-wise, in place; the shapes must match.
func (t *Tensor) Add(u *Tensor) *Tensor {
	if t.H != u.H || t.W != u.W || t.C != u.C {
		panic(fmt.Sprintf("nn: add %s to %s", u.Shape(), t.Shape()))
	}
	ud := u.Data[:len(t.Data)]
	for i := range t.Data {
		t.Data[i] += ud[i]
	}
	return t
}

func (t *Tensor) checkChannels(v *Param) {
	if len(v.Data) != t.C {
		panic(fmt.Sprintf("nn: %s has %d values for %s", v.Name, len(v.Data), t.Shape()))
	}
}
