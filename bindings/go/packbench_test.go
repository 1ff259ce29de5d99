package sketches

import "testing"

func BenchmarkPackOnly(b *testing.B) {
	ks := keys("present-", 0, 1000000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		packed(ks, func(start int, data []byte, offs []uint32) int32 { return 0 })
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ks)), "ns/key")
}

func BenchmarkReadOnly(b *testing.B) {
	ks := keys("present-", 0, 1000000)
	b.ResetTimer()
	var s byte
	for i := 0; i < b.N; i++ {
		for _, k := range ks {
			s += k[len(k)-1]
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ks)), "ns/key")
	_ = s
}
