package cli

// RunMigrate lets the external tests run the command with an environment
// of their own (MigrateOptions.Env).
var RunMigrate = runMigrate
