module precog.example/why

go 1.23
