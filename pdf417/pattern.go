package pdf417

// Pattern is the 17-module bar-space pattern of codeword value (0–928)
// in cluster 3k (k = 0, 1, 2), most significant bit first, 1 for a bar
// module. It is exported for the test encoder pdf417test, so that the
// symbols tests render use the very table the reader reads with.
func Pattern(k, value int) uint32 {
	return patterns[k][value]
}
