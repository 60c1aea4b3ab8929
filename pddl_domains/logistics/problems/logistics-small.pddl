;; one city: a truck carries one package across town
(define (problem logistics-small)
  (:domain logistics)
  (:objects
    city1 - city
    depot1 - location
    apt1 - airport
    truck1 - truck
    pkg1 - package)
  (:init
    (in-city depot1 city1) (in-city apt1 city1)
    (at truck1 apt1) (at pkg1 depot1))
  (:goal (and (at pkg1 apt1))))
