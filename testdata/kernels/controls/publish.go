package controls

import "sync"

// Config is built before the workers start and only read afterwards.
type Config struct {
	Routes  map[string]string
	Router  *Router
	Servers []string
}

// ServePublished builds cfg, then starts one worker per request; the workers
// read cfg and never write it.
func ServePublished(requests []string) []string {
	cfg := &Config{
		Routes:  map[string]string{"/": "index", "/favicon.ico": "icon"},
		Router:  &Router{tasks: []string{"FromDevice", "ToDevice"}},
		Servers: []string{"a", "b"},
	}
	out := make([]string, len(requests))
	var wg sync.WaitGroup
	for i, r := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = cfg.Routes[r] + "@" + cfg.Servers[i%len(cfg.Servers)] + ":" + cfg.Router.tasks[0]
		}()
	}
	wg.Wait()
	return out
}
