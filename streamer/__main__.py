from streamer.cli.main import main

main()
