package shellperm

import "strings"

// commandArity maps a command prefix to how many leading tokens name "the
// command" a person thinks of approving: git has arity 2 (git checkout),
// npm run has arity 3 (npm run build), docker compose 3 (docker compose up).
// The bash tool turns a command into its "always" pattern with it: approving
// `git checkout main` for the session approves `git checkout *`.
//
// The longest listed prefix of a command wins, and a longer prefix is listed
// only when its arity differs from what its shorter prefix implies. Flags
// are not special: `git -C dir status` has the prefix `git -C`, which is the
// conservative reading (a narrower approval, never a wider one).
//
// The table is OpenCode's (packages/opencode/src/permission/arity.ts), kept
// as data so it can be reviewed and extended without touching code; each
// entry's comment is a command it matches.
var commandArity = map[string]int{
	"cat":                 1, // cat file.txt
	"cd":                  1, // cd /path/to/dir
	"chmod":               1, // chmod 755 script.sh
	"chown":               1, // chown user:group file.txt
	"cp":                  1, // cp source.txt dest.txt
	"echo":                1, // echo "hello world"
	"env":                 1, // env
	"export":              1, // export PATH=/usr/bin
	"grep":                1, // grep pattern file.txt
	"ionice":              1, // ionice -c 2 command
	"kill":                1, // kill 1234
	"killall":             1, // killall process
	"ln":                  1, // ln -s source target
	"ls":                  1, // ls -la
	"mkdir":               1, // mkdir new-dir
	"mv":                  1, // mv old.txt new.txt
	"nice":                1, // nice -n 5 command
	"nohup":               1, // nohup command args
	"ps":                  1, // ps aux
	"pwd":                 1, // pwd
	"rm":                  1, // rm file.txt
	"rmdir":               1, // rmdir empty-dir
	"sleep":               1, // sleep 5
	"source":              1, // source ~/.bashrc
	"stdbuf":              1, // stdbuf -oL command
	"sudo":                1, // sudo command
	"tail":                1, // tail -f log.txt
	"time":                1, // time command
	"timeout":             1, // timeout 5 command
	"touch":               1, // touch file.txt
	"unset":               1, // unset VAR
	"watch":               1, // watch -n 1 command
	"which":               1, // which node
	"xargs":               1, // xargs -I{} command
	"aws":                 3, // aws s3 ls
	"az":                  3, // az storage blob list
	"bazel":               2, // bazel build
	"brew":                2, // brew install node
	"bun":                 2, // bun install
	"bun run":             3, // bun run dev
	"bun x":               3, // bun x vite
	"cargo":               2, // cargo build
	"cargo add":           3, // cargo add tokio
	"cargo run":           3, // cargo run main
	"cdk":                 2, // cdk deploy
	"cf":                  2, // cf push app
	"cmake":               2, // cmake build
	"composer":            2, // composer require laravel
	"consul":              2, // consul members
	"consul kv":           3, // consul kv get config/app
	"crictl":              2, // crictl ps
	"deno":                2, // deno run server.ts
	"deno task":           3, // deno task dev
	"doctl":               3, // doctl kubernetes cluster list
	"docker":              2, // docker run nginx
	"docker builder":      3, // docker builder prune
	"docker compose":      3, // docker compose up
	"docker container":    3, // docker container ls
	"docker image":        3, // docker image prune
	"docker network":      3, // docker network inspect
	"docker volume":       3, // docker volume ls
	"eksctl":              2, // eksctl get clusters
	"eksctl create":       3, // eksctl create cluster
	"firebase":            2, // firebase deploy
	"flyctl":              2, // flyctl deploy
	"gcloud":              3, // gcloud compute instances list
	"gh":                  3, // gh pr list
	"git":                 2, // git checkout main
	"git config":          3, // git config user.name
	"git remote":          3, // git remote add origin
	"git stash":           3, // git stash pop
	"go":                  2, // go build
	"gradle":              2, // gradle build
	"helm":                2, // helm install mychart
	"heroku":              2, // heroku logs
	"hugo":                2, // hugo new site blog
	"ip":                  2, // ip link show
	"ip addr":             3, // ip addr show
	"ip link":             3, // ip link set eth0 up
	"ip netns":            3, // ip netns exec foo bash
	"ip route":            3, // ip route add default via 1.1.1.1
	"kind":                2, // kind delete cluster
	"kind create":         3, // kind create cluster
	"kubectl":             2, // kubectl get pods
	"kubectl kustomize":   3, // kubectl kustomize overlays/dev
	"kubectl rollout":     3, // kubectl rollout restart deploy/api
	"kustomize":           2, // kustomize build .
	"make":                2, // make build
	"mc":                  2, // mc ls myminio
	"mc admin":            3, // mc admin info myminio
	"minikube":            2, // minikube start
	"mongosh":             2, // mongosh test
	"mysql":               2, // mysql -u root
	"mvn":                 2, // mvn compile
	"ng":                  2, // ng generate component home
	"npm":                 2, // npm install
	"npm exec":            3, // npm exec vite
	"npm init":            3, // npm init vue
	"npm run":             3, // npm run dev
	"npm view":            3, // npm view react version
	"nvm":                 2, // nvm use 18
	"nx":                  2, // nx build
	"openssl":             2, // openssl genrsa 2048
	"openssl req":         3, // openssl req -new -key key.pem
	"openssl x509":        3, // openssl x509 -in cert.pem
	"pip":                 2, // pip install numpy
	"pipenv":              2, // pipenv install flask
	"pnpm":                2, // pnpm install
	"pnpm dlx":            3, // pnpm dlx create-next-app
	"pnpm exec":           3, // pnpm exec vite
	"pnpm run":            3, // pnpm run dev
	"poetry":              2, // poetry add requests
	"podman":              2, // podman run alpine
	"podman container":    3, // podman container ls
	"podman image":        3, // podman image prune
	"psql":                2, // psql -d mydb
	"pulumi":              2, // pulumi up
	"pulumi stack":        3, // pulumi stack output
	"pyenv":               2, // pyenv install 3.11
	"python":              2, // python -m venv env
	"rake":                2, // rake db:migrate
	"rbenv":               2, // rbenv install 3.2.0
	"redis-cli":           2, // redis-cli ping
	"rustup":              2, // rustup update
	"serverless":          2, // serverless invoke
	"sfdx":                3, // sfdx force:org:list
	"skaffold":            2, // skaffold dev
	"sls":                 2, // sls deploy
	"sst":                 2, // sst deploy
	"swift":               2, // swift build
	"systemctl":           2, // systemctl restart nginx
	"terraform":           2, // terraform apply
	"terraform workspace": 3, // terraform workspace select prod
	"tmux":                2, // tmux new -s dev
	"turbo":               2, // turbo run build
	"ufw":                 2, // ufw allow 22
	"vault":               2, // vault login
	"vault auth":          3, // vault auth list
	"vault kv":            3, // vault kv get secret/api
	"vercel":              2, // vercel deploy
	"volta":               2, // volta install node
	"wp":                  2, // wp plugin install
	"yarn":                2, // yarn add react
	"yarn dlx":            3, // yarn dlx create-react-app
	"yarn run":            3, // yarn run dev
}

// commandPrefix returns the leading tokens of a simple command that name it
// for an "always" approval, by the arity table: the longest prefix of tokens
// found in the table decides how many tokens to keep; a command not in the
// table keeps only its first token. It never returns more tokens than given.
//
//	commandPrefix([]string{"git", "checkout", "main"}) // [git checkout]
//	commandPrefix([]string{"npm", "run", "build"})     // [npm run build]
//	commandPrefix([]string{"python3", "x.py"})         // [python3]
func commandPrefix(tokens []string) []string {
	for n := len(tokens); n > 0; n-- {
		if arity, ok := commandArity[strings.Join(tokens[:n], " ")]; ok {
			return tokens[:min(arity, len(tokens))]
		}
	}
	if len(tokens) == 0 {
		return nil
	}
	return tokens[:1]
}

// alwaysPattern is the rule pattern an "always" reply approves for a command
// with these tokens: its prefix followed by " *".
func alwaysPattern(tokens []string) string {
	return strings.Join(commandPrefix(tokens), " ") + " *"
}
