#include <regex>
#include <map>
#include <string>
#include <iostream>
#include <vector>
#include <algorithm>
int main(){std::regex r("a+b*");std::map<std::string,std::vector<int>> m; for(auto& [k,v]:m) std::sort(v.begin(),v.end()); std::cout<<std::regex_match("aab",r);}
