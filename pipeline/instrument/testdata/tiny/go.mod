module precog.example/tiny

go 1.22
