# agent area
