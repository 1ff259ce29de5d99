module example.invalid/sketches/bindings/go

go 1.24

require (
	github.com/axiomhq/hyperloglog v0.3.0
	github.com/bits-and-blooms/bloom/v3 v3.7.1
	github.com/seiflotfy/cuckoofilter v0.0.0-20240715131351-a2f2c23f1771
)

require (
	github.com/bits-and-blooms/bitset v1.24.2 // indirect
	github.com/dgryski/go-metro v0.0.0-20250106013310-edb8663e5e33 // indirect
	github.com/kamstrup/intmap v0.5.2 // indirect
)
