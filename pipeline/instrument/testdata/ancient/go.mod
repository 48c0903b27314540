module precog.example/ancient

go 1.16
