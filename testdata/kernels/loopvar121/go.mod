module precog.example/loopvar121

go 1.21
