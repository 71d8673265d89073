"""'Will it fall?' studies: people's judgments of dataset scenes, collected in the browser and set
beside the referee, the fall odds and a noisy-simulation observer (docs/study.md).

    build.py     choose a study's trials from a dataset and write the study directory
    files.py     the study directory's format: load, check, save, hash
"""
