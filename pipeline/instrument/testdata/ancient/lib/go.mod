module precog.example/ancientlib

go 1.16

require precog.example/ancientlib2 v0.0.0
