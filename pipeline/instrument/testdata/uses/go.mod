module precog.example/uses

go 1.22
