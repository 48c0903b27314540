module precog.example/old

go 1.20
