module example.invalid/sketches/bindings/go

go 1.24
