module precog.example/ancient

go 1.13

require precog.example/ancientlib v0.0.0

replace (
	precog.example/ancientlib => ./lib
	precog.example/ancientlib2 => ./lib2
)
