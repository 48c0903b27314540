module precog.example/kernels

go 1.23
