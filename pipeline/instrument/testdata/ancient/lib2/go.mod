module precog.example/ancientlib2

go 1.16
