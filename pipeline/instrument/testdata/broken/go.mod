module precog.example/broken

go 1.22
