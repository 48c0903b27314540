module precog.example/cfp

go 1.22
