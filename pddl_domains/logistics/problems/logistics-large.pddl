;; three cities, two airplanes, four packages
(define (problem logistics-large)
  (:domain logistics)
  (:objects
    city1 city2 city3 - city
    depot1 depot2 depot3 - location
    apt1 apt2 apt3 - airport
    truck1 truck2 truck3 - truck
    plane1 plane2 - airplane
    pkg1 pkg2 pkg3 pkg4 - package)
  (:init
    (in-city depot1 city1) (in-city apt1 city1)
    (in-city depot2 city2) (in-city apt2 city2)
    (in-city depot3 city3) (in-city apt3 city3)
    (at truck1 depot1) (at truck2 depot2) (at truck3 apt3)
    (at plane1 apt1) (at plane2 apt3)
    (at pkg1 depot1) (at pkg2 depot2) (at pkg3 apt3) (at pkg4 depot3))
  (:goal (and (at pkg1 depot3) (at pkg2 apt1) (at pkg3 depot2) (at pkg4 depot1))))
