module precog.example/shared

go 1.22
